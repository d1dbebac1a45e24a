import WaterFuzzing

#if WATER_LIBFUZZER
    import Glibc

    /// libFuzzer's driver (compiler-rt's FuzzerDriver.cpp), linked in by `-sanitize=fuzzer`.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runLibFuzzer(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The target `WATER_FUZZ_TARGET` names (libFuzzer owns the command line); frames by default.
    private let target: FuzzTarget = {
        let name = getenv("WATER_FUZZ_TARGET").map { String(cString: $0) } ?? "frames"
        guard let target = FuzzTarget.named(name) else {
            print("water-fuzz: no target \(name); the targets: \(FuzzTarget.all.map(\.name))")
            exit(64)
        }
        return target
    }()

    /// The function libFuzzer calls with each input.
    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        target.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// SwiftPM links an executable's entry point under this name (`--defsym main=...`), which
    /// takes the place of libFuzzer's own `main`: hand the arguments to libFuzzer's driver.
    @_cdecl("water_fuzz_main")
    func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        _ = target
        var count = argc
        var arguments = argv
        return runLibFuzzer(&count, &arguments, fuzzOneInput)
    }
#else
    import Foundation

    /// Without libFuzzer: `water-fuzz TARGET FILE...` runs each input once, to reproduce a crash
    /// that `scripts/fuzz` saved; `water-fuzz --write-seeds TARGET DIR` writes the target's
    /// starting inputs; `water-fuzz --targets` lists the targets.
    @main
    struct FuzzReplay {
        static func main() throws {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if arguments == ["--targets"] {
                print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
                return
            }
            if arguments.first == "--write-seeds", arguments.count == 3 {
                let target = try target(arguments[1])
                for (index, seed) in target.seeds().enumerated() {
                    try Data(seed).write(to: URL(fileURLWithPath: arguments[2]).appendingPathComponent("seed-\(index)"))
                }
                return
            }
            guard let name = arguments.first else {
                throw FuzzUsage("usage: water-fuzz TARGET FILE... | --write-seeds TARGET DIR | --targets")
            }
            let target = try target(name)
            for path in arguments.dropFirst() {
                target.run([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
                print("ok \(path)")
            }
        }

        static func target(_ name: String) throws -> FuzzTarget {
            guard let target = FuzzTarget.named(name) else {
                throw FuzzUsage("no target \(name); the targets: \(FuzzTarget.all.map(\.name).joined(separator: ", "))")
            }
            return target
        }
    }

    struct FuzzUsage: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
#endif
