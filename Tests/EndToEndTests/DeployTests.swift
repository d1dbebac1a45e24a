import Foundation
import Glibc
import Testing
import WaterTestSupport

/// The repository's root, from this file's place in it.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

func shell(_ command: String) -> (status: Int32, output: String) {
    // Standard error joins standard output, as a person at the terminal would see them.
    guard let result = try? ChildProcess.run("/bin/bash", ["-c", "exec 2>&1; " + command]) else { return (-1, "") }
    return (result.status, result.output)
}

@Suite("deploy/", .serialized)
struct DeployTests {
    @Test("install into a temporary root puts everything in place, idempotently, and uninstall keeps the data")
    func installAndUninstall() throws {
        let root = "/tmp/water-deploy-\(getpid())"
        defer { _ = shell("rm -rf \(root)") }
        let install = "\(repositoryRoot)/deploy/install --destdir \(root) --binaries \(productsDirectory.path)"
        let first = shell(install)
        #expect(first.status == 0, "\(first.output)")
        for (path, mode) in [
            ("usr/local/bin/water-server", 0o755), ("usr/local/bin/water-client", 0o755),
            ("etc/systemd/system/water-server.service", 0o644), ("etc/water/water-server.env", 0o644),
            ("usr/local/share/doc/water/deploy.md", 0o644),
            ("usr/local/share/man/man1/water-client.1", 0o644), ("usr/local/share/man/man8/water-server.8", 0o644),
            ("usr/local/share/bash-completion/completions/water-client", 0o644),
            ("usr/local/share/zsh/site-functions/_water-server", 0o644),
            ("usr/local/share/fish/vendor_completions.d/water-client.fish", 0o644),
            ("usr/local/lib/systemd/user/water-nudge.service", 0o644),
            ("usr/local/lib/systemd/user/water-nudge.timer", 0o644),
        ] {
            var info = stat()
            #expect(stat("\(root)/\(path)", &info) == 0, "\(path) was installed")
            #expect(Int(info.st_mode & 0o777) == mode, "\(path) mode")
        }
        let unit = try String(contentsOfFile: "\(root)/etc/systemd/system/water-server.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/water-server serve --data /var/lib/water"))
        #expect(!unit.contains("@BINDIR@"))
        // A changed configuration survives a second install (an upgrade).
        _ = shell("echo 'WATER_SERVER_OPTIONS=--listen 0.0.0.0:7421' > \(root)/etc/water/water-server.env")
        #expect(shell(install).status == 0)
        #expect(try String(contentsOfFile: "\(root)/etc/water/water-server.env", encoding: .utf8).contains("7421"))
        // Uninstall removes what install put there, but never the data or a changed configuration.
        _ = shell("mkdir -p \(root)/var/lib/water && echo precious > \(root)/var/lib/water/format")
        let uninstall = shell("\(repositoryRoot)/deploy/uninstall --destdir \(root)")
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(access("\(root)/usr/local/bin/water-server", F_OK) != 0)
        #expect(access("\(root)/etc/systemd/system/water-server.service", F_OK) != 0)
        #expect(access("\(root)/usr/local/share/man/man1/water-client.1", F_OK) != 0)
        #expect(access("\(root)/usr/local/share/bash-completion/completions/water-client", F_OK) != 0)
        #expect(access("\(root)/var/lib/water/format", F_OK) == 0)
        #expect(access("\(root)/etc/water/water-server.env", F_OK) == 0)
    }

    @Test("systemd-analyze verify accepts the unit")
    func unitVerifies() throws {
        let root = "/tmp/water-unit-\(getpid())"
        defer { _ = shell("rm -rf \(root)") }
        #expect(
            shell("\(repositoryRoot)/deploy/install --destdir \(root) --binaries \(productsDirectory.path)").status == 0
        )
        // The unit names /usr/local/bin/water-server; point it at the copy in the temporary root.
        let unit = "\(root)/water-server.service"
        #expect(
            shell(
                "sed 's|/usr/local/bin/water-server|\(root)/usr/local/bin/water-server|' \(root)/etc/systemd/system/water-server.service > \(unit)"
            ).status == 0)
        let verify = shell("systemd-analyze verify \(unit)")
        #expect(verify.status == 0, "\(verify.output)")
        #expect(!verify.output.contains("water-server.service:"), "\(verify.output)")
        // The nudge's user units, the same way (the timer is checked with its service beside it).
        let user = "\(root)/user"
        #expect(
            shell(
                "mkdir -p \(user) && cp \(root)/usr/local/lib/systemd/user/water-nudge.timer \(user)/ && "
                    + "sed 's|/usr/local/bin/water-client|\(root)/usr/local/bin/water-client|' "
                    + "\(root)/usr/local/lib/systemd/user/water-nudge.service > \(user)/water-nudge.service"
            ).status == 0)
        let timer = shell("cd \(user) && systemd-analyze verify water-nudge.timer water-nudge.service")
        #expect(timer.status == 0 && !timer.output.contains("water-nudge"), "\(timer.output)")
    }
}
