import Foundation
import Testing
import WaterTestSupport

/// water-server's commands as an admin meets them (issue 22): a failure names its cause, and
/// what --help names is there.
@Suite("water-server's commands, end to end", .serialized)
struct ServerCommandsTests {
    @Test(
        "--listen failures name their cause: a name that does not resolve, an address not this machine's, a busy port")
    func listenFailures() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("listen-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        // A second household beside the running one, so that its lock is free.
        #expect(
            try run(
                "water-server",
                ["init", "--data", copy, "--admin", "mum", "--password-stdin", "--password-strength", "minimum"],
                input: adminPassword + "\n"
            ).status == 0)
        for (listen, expected) in [
            ("nonsense.invalid:7420", "resolve nonsense.invalid:7420: "),
            ("192.0.2.1:7420", "Cannot assign requested address; is that address one of this machine's?"),
            ("\(server.address)", "Address already in use; is another server using that port?"),
        ] {
            let served = try run("water-server", ["serve", "--data", copy, "--listen", listen], seconds: 30)
            #expect(served.status == 69, "\(listen): \(served.error)")
            #expect(served.error.contains(expected), "\(listen): \(served.error)")
            #expect(listen == "\(server.address)" || !served.error.contains("port?"), "\(served.error)")
        }
    }

    @Test("backup --to inside the data directory is refused, however the path is written, and makes nothing")
    func backupInsideData() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        let data = server.dataDirectory
        let parent = (data as NSString).deletingLastPathComponent
        let name = (data as NSString).lastPathComponent
        for target in ["\(data)/backup", "\(data)/users/copy/", "\(parent)/\(name)/../\(name)/b"] {
            let backup = try run("water-server", ["backup", "--data", data, "--to", target])
            #expect(backup.status != 0, "\(target): \(backup.output)")
            #expect(backup.error.contains("is inside the data directory"), "\(target): \(backup.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(data)/backup"))
        #expect(!FileManager.default.fileExists(atPath: "\(data)/b"))
        // Beside it is fine.
        let beside = "\(parent)/\(name)-backup"
        defer { try? FileManager.default.removeItem(atPath: beside) }
        #expect(try run("water-server", ["backup", "--data", data, "--to", beside]).status == 0)
    }

    @Test("every file water-server --help names is in a serving data directory")
    func helpNamesTheFiles() throws {
        let server = try ServerProcess.fresh()
        defer { #expect(server.stop() == 0) }
        #expect(waitUntil { FileManager.default.fileExists(atPath: "\(server.dataDirectory)/status") })
        let help = try run("water-server", ["--help"]).output
        let named = Set(help.split(whereSeparator: { " ,:\n".contains($0) }).filter { $0.hasPrefix("DIR/") })
        #expect(named.count >= 8, "\(named)")
        for path in named {
            let file = server.dataDirectory + path.dropFirst(3).replacingOccurrences(of: "ID", with: "1")
            #expect(FileManager.default.fileExists(atPath: file), "\(path) is not in a data directory")
        }
    }
}
