import Testing
import WaterProtocol
import WaterTLS
import WaterTestSupport

/// A fresh server with the kitchen wall (`serve --wall`) on `address`, and mum logged in at a
/// command line of her own: what every wall test starts from.
struct WallUnderTest {
    let server: ServerProcess
    /// `http://127.0.0.1:PORT` (or https).
    let base: String
    let mum: CommandLineUser

    static func start(tls: Bool = false, at address: String = "127.0.0.1:0", options: [String] = []) throws
        -> WallUnderTest
    {
        let server = try ServerProcess.fresh(["--wall", address] + options, tls: tls)
        #expect(server.waitForLog("wall listening"))
        let line = server.logSoFar.split(separator: "\n").first { $0.contains("wall listening") } ?? ""
        let base = line.split(separator: " ").first { $0.hasPrefix("address=") }.map { String($0.dropFirst(8)) }
        let mum = server.cli("mum")
        var login = ["login", "mum", "--password-stdin"]
        if tls {
            let fingerprint = try Fingerprint(certificateAt: "\(server.dataDirectory)/tls/certificate.pem")
            login += ["--fingerprint", fingerprint.description]
        }
        #expect(try mum.run(login, input: adminPassword + "\n").status == 0)
        return WallUnderTest(server: server, base: try #require(base), mum: mum)
    }

    /// The wall's port.
    var port: UInt16 { UInt16(base.split(separator: ":").last ?? "") ?? 0 }

    /// A new link's path (`/wall/TOKEN`), made by mum.
    func link() throws -> String {
        try mum.json(WaterV1.CreateWallLinkResponse.self, ["wall", "link", "--label", "kitchen"]).path
    }
}

/// curl's answer to a GET of `url`: the status line and headers, then the body (`-i`).
func httpGet(_ url: String, _ options: [String] = []) throws -> (status: Int, headers: String, body: String) {
    let result = try curl(["-i"] + options + [url])
    let parts = result.output.components(separatedBy: "\r\n\r\n")
    let headers = parts.first ?? ""
    let status = Int(headers.split(separator: " ").dropFirst().first ?? "") ?? 0
    return (status, headers, parts.dropFirst().joined(separator: "\r\n\r\n"))
}

/// curl, silent, bounded.
func curl(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    try ChildProcess.run("/usr/bin/curl", ["-s", "--max-time", "10"] + arguments, seconds: 30)
}
