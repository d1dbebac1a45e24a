import Foundation
import WaterProtocol
import WaterTransport

/// Whole water-client processes timed from start to exit: `log`, `prompt`, and `--version` as the
/// floor.
extension ServerBenchmark {
    /// The median wall time of `water-client log` (20 runs) after one login. With
    /// `WATER_TLS_FINGERPRINT` in `extra`, the login pins it.
    static func clientWallTime(_ address: HostPort, scratch: String, environment extra: [String: String]) throws
        -> Double
    {
        let environment = [
            "WATER_SERVER": address.description, "XDG_CONFIG_HOME": "\(scratch)/client",
            "XDG_STATE_HOME": "\(scratch)/state", "NO_COLOR": "1",
        ].merging(extra.filter { $0.key != "WATER_TLS_FINGERPRINT" }) { $1 }
        let pin = extra["WATER_TLS_FINGERPRINT"].map { ["--fingerprint", $0] } ?? []
        let login = try Spawned.run(
            productsDirectory + "/water-client", ["login", "h2", "--password-stdin"] + pin,
            input: password + "\n", environment: environment)
        guard login == 0 else { throw WaterError(.internal, "water-client login failed") }
        var times: [Double] = []
        for _ in 0..<20 {
            times.append(
                try Measure.microseconds {
                    _ = try Spawned.run(productsDirectory + "/water-client", ["log", "250"], environment: environment)
                } / 1000)
        }
        return Measure.median(times)
    }

    /// `water-client prompt` from process start to exit (200 runs, after ``clientWallTime``
    /// left a session and a fresh cache in `scratch`), and `water-client --version` beside it.
    static func promptWallTime(scratch: String) throws -> (p50: Double, p90: Double, floor: Double) {
        let environment = [
            "XDG_CONFIG_HOME": "\(scratch)/client", "XDG_STATE_HOME": "\(scratch)/state", "NO_COLOR": "1",
        ]
        func times(_ arguments: [String]) throws -> [Double] {
            try (0..<200).map { _ in
                try Measure.microseconds {
                    _ = try Spawned.run(productsDirectory + "/water-client", arguments, environment: environment)
                } / 1000
            }.sorted()
        }
        let prompt = try times(["prompt"])
        let version = try times(["--version"])
        return (Measure.median(prompt), prompt[prompt.count * 9 / 10], Measure.median(version))
    }
}
