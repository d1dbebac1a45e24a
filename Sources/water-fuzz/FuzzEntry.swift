import WaterFuzzing

#if WATER_LIBFUZZER
    /// libFuzzer's driver (compiler-rt's FuzzerDriver.cpp), linked in by `-sanitize=fuzzer`.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runLibFuzzer(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The function libFuzzer calls with each input.
    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        FuzzTarget.run(UnsafeBufferPointer(start: data, count: size))
        return 0
    }

    /// SwiftPM links an executable's entry point under this name (`--defsym main=...`), which
    /// takes the place of libFuzzer's own `main`: hand the arguments to libFuzzer's driver.
    @_cdecl("water_fuzz_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return runLibFuzzer(&count, &arguments, fuzzOneInput)
    }
#else
    import Foundation

    /// Without libFuzzer: `water-fuzz FILE...` runs each input once, to reproduce a crash that
    /// `scripts/fuzz` saved; `water-fuzz --write-seeds DIR` writes the fuzzer's starting inputs.
    @main
    struct FuzzReplay {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments.first == "--write-seeds", arguments.count == 2 {
                for (index, seed) in FuzzTarget.seedInputs().enumerated() {
                    try Data(seed).write(to: URL(fileURLWithPath: arguments[1]).appendingPathComponent("seed-\(index)"))
                }
                return
            }
            for path in arguments {
                FuzzTarget.run(try Data(contentsOf: URL(fileURLWithPath: path)))
                print("ok \(path)")
            }
        }
    }
#endif
