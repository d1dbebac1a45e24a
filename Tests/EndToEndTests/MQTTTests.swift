import Foundation
import Glibc
import Testing
import WaterCore
import WaterTestSupport

/// `serve --mqtt` against Debian's real mosquitto: what Home Assistant would read.
@Suite("Home Assistant through MQTT, end to end")
struct MQTTTests {
    /// mum logged in on the command line, and ben (display name Ben) added and logged in.
    private func family(_ server: ServerProcess) throws -> (mum: CommandLineUser, ben: CommandLineUser) {
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(
            try mum.run(
                ["member", "add", "ben", "--display-name", "Ben", "--password-stdin"], input: "ben-password-1\n"
            )
            .status == 0)
        let ben = server.cli("ben")
        #expect(try ben.run(["login", "ben", "--password-stdin"], input: "ben-password-1\n").status == 0)
        return (mum, ben)
    }

    @Test("discovery configs for every member's sensors, the state after a log, the retained board and its leader")
    func discoveryAndState() throws {
        let broker = try MosquittoBroker()
        let server = try ServerProcess.fresh(["--mqtt", broker.address])
        #expect(server.waitForLog("mqtt connected"))
        let (_, ben) = try family(server)

        let fields = [
            "amount_ml", "goal_ml", "percent", "drinks", "streak_days", "best_streak_days", "days_met", "rank",
            "average_percent",
        ]
        let expected = Set(
            ["mum", "ben"].flatMap { member in fields.map { "homeassistant/sensor/water_\(member)_\($0)/config" } }
                + ["homeassistant/sensor/water_household_leader/config"])
        let configs = try broker.subscribe(["homeassistant/sensor/+/config"], count: expected.count).messages()
        #expect(Set(configs.map(\.topic)) == expected)
        for (topic, payload) in configs where topic.contains("_ben_") {
            let config = jsonObject(payload)
            let id = topic.split(separator: "/")[2]
            #expect(config["unique_id"] as? String == String(id))
            #expect(config["state_topic"] as? String == "water/ben/state")
            #expect(config["availability_topic"] as? String == "water/status")
            #expect((config["value_template"] as? String)?.hasPrefix("{{ value_json.") == true)
            let device = config["device"] as? [String: Any]
            #expect(device?["identifiers"] as? [String] == ["water_member_ben"])
            #expect(device?["name"] as? String == "Ben")
        }
        let amount = jsonObject(configs.first { $0.topic.hasSuffix("water_ben_amount_ml/config") }?.payload)
        #expect(amount["unit_of_measurement"] as? String == "mL")
        #expect(amount["device_class"] as? String == "volume")
        #expect(amount["state_class"] as? String == "total_increasing")

        #expect(try ben.run(["log", "500"]).status == 0)
        let state = jsonObject(
            try broker.waitForRetained("water/ben/state") { jsonObject($0)["amount_ml"] as? Int == 500 })
        #expect(state["amount_ml"] as? Int == 500)
        #expect(state["goal_ml"] as? Int == 2000)
        #expect(state["percent"] as? Int == 25)
        #expect(state["drinks"] as? Int == 1)
        #expect(state["rank"] as? Int == 1)
        #expect(state["display_name"] as? String == "Ben")

        let board = jsonObject(try broker.retained("water/board"))
        let lines = board["members"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["username"] as? String } == ["ben", "mum"])
        #expect(lines.first?["total_ml"] as? Int == 500)
        #expect(board["leader"] as? String == "Ben")
        #expect(try broker.retained("water/leader") == "Ben")
        #expect(try broker.retained("water/status") == "online")

        let status = try run("water-server", ["status", "--data", server.dataDirectory, "--json"])
        let mqtt = jsonObject(status.output)["mqtt"] as? [String: Any]
        #expect(mqtt?["broker"] as? String == broker.address)
        #expect(mqtt?["connected"] as? Bool == true)
        #expect(server.stop() == 0)
        // A clean stop says offline itself (no will is sent then).
        #expect(try broker.retained("water/status") == "offline")
    }

    @Test("kill -9 of the server: the broker publishes its last will, offline")
    func lastWill() throws {
        let broker = try MosquittoBroker()
        let server = try ServerProcess.fresh(["--mqtt", broker.address])
        #expect(server.waitForLog("mqtt connected"))
        #expect(try broker.waitForRetained("water/status") { $0 == "online" } == "online")
        server.killAbruptly()
        #expect(try broker.waitForRetained("water/status") { $0 == "offline" } == "offline")
    }

    @Test("the broker restarts (losing what it held): the server reconnects and publishes the retained state again")
    func brokerRestart() throws {
        let broker = try MosquittoBroker()
        let server = try ServerProcess.fresh(["--mqtt", broker.address])
        let (_, ben) = try family(server)
        #expect(try ben.run(["log", "300"]).status == 0)
        #expect(try broker.waitForRetained("water/ben/state") { jsonObject($0)["amount_ml"] as? Int == 300 } != nil)

        broker.stop()
        #expect(server.waitForLog("mqtt disconnected"))
        #expect(waitUntil { server.statusFile["mqtt"] == "disconnected \(broker.address)" })
        // A member's call does not wait for the broker.
        #expect(try ben.run(["log", "200"]).status == 0)

        try broker.start()
        #expect(server.waitForLog("mqtt connected", lines: 2, seconds: 90))
        #expect(try broker.waitForRetained("water/ben/state") { jsonObject($0)["amount_ml"] as? Int == 500 } != nil)
        #expect(try broker.retained("homeassistant/sensor/water_ben_amount_ml/config") != nil)
        #expect(try broker.retained("water/status") == "online")
        #expect(waitUntil { server.statusFile["mqtt"] == "connected \(broker.address)" })
    }

    @Test("members log while the broker is down: every call succeeds, and the broker gets it all once it is up")
    func brokerDownWhileLogging() throws {
        let broker = try MosquittoBroker()
        broker.stop()  // nothing listens on its port yet
        let server = try ServerProcess.fresh(["--mqtt", broker.address])
        #expect(server.waitForLog("mqtt broker not connected"))
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        for _ in 0..<8 { #expect(try mum.run(["log", "100"]).status == 0) }
        let status = try run("water-server", ["status", "--data", server.dataDirectory])
        #expect(status.output.contains("mqtt: not connected (retrying) \(broker.address)"))

        try broker.start()
        #expect(server.waitForLog("mqtt connected", seconds: 90))
        let state = try broker.waitForRetained("water/mum/state") { jsonObject($0)["amount_ml"] as? Int == 800 }
        #expect(jsonObject(state)["drinks"] as? Int == 8)
    }

    @Test(
        "a broker with passwords: --mqtt-user and --mqtt-password-file log in; a wrong password is refused; neither is logged"
    )
    func passwordProtectedBroker() throws {
        let broker = try MosquittoBroker(users: [("water", "broker-secret-41")])
        let good = "\(broker.directory)/good-password"
        let bad = "\(broker.directory)/bad-password"
        try "broker-secret-41\n".write(toFile: good, atomically: true, encoding: .utf8)
        try "not-the-password-17\n".write(toFile: bad, atomically: true, encoding: .utf8)

        let refused = try ServerProcess.fresh([
            "--mqtt", broker.address, "--mqtt-user", "water", "--mqtt-password-file", bad,
        ])
        #expect(refused.waitForLog("mqtt broker refused the connection"))
        #expect(waitUntil { refused.statusFile["mqtt"] == "disconnected \(broker.address)" })
        #expect(refused.stop() == 0)
        #expect(!refused.log.contains("not-the-password-17"))

        let server = try ServerProcess.fresh([
            "--mqtt", broker.address, "--mqtt-user", "water", "--mqtt-password-file", good,
        ])
        #expect(server.waitForLog("mqtt connected"))
        let login = ("water", "broker-secret-41")
        #expect(try broker.retained("water/status", login: login) == "online")
        #expect(try broker.retained("water/mum/state", login: login).map { jsonObject($0)["goal_ml"] as? Int } == 2000)
        #expect(server.stop() == 0)
        #expect(!server.log.contains("broker-secret-41"))
    }

    @Test("a renamed member's configs and state are cleared with an empty retained payload; a removed member's too")
    func renamedAndRemovedMembers() throws {
        let broker = try MosquittoBroker()
        let server = try ServerProcess.fresh(["--mqtt", broker.address])
        let (mum, _) = try family(server)
        let topics = ["homeassistant/sensor/water_ben_amount_ml/config", "water/ben/state"]
        #expect(try broker.waitForRetained(topics[1]) { _ in true } != nil)
        // Both retained messages first, then both cleared.
        let watch = try broker.subscribe(topics, count: 4)
        #expect(watch.waitFor(2))
        #expect(try mum.run(["member", "rename", "ben", "--to", "benjamin"]).status == 0)
        let messages = watch.messages()
        #expect(messages.count == 4)
        #expect(Set(messages.dropFirst(2).map(\.topic)) == Set(topics))
        #expect(messages.dropFirst(2).allSatisfy { $0.payload == "(null)" })
        #expect(try broker.waitForRetained("homeassistant/sensor/water_benjamin_amount_ml/config") { _ in true } != nil)

        #expect(try mum.run(["member", "rm", "benjamin", "--yes"]).status == 0)
        #expect(try waitUntil { try broker.retained("water/benjamin/state") == nil })
        #expect(try broker.retained("homeassistant/sensor/water_benjamin_rank/config") == nil)
    }

    @Test("a percent member's state and board line have no millilitres; a hidden member's topics are cleared")
    func privacyOnTheWall() throws {
        let broker = try MosquittoBroker()
        let server = try ServerProcess.fresh(["--mqtt", broker.address])
        let (mum, ben) = try family(server)
        #expect(try mum.run(["log", "1000"]).status == 0)
        #expect(try ben.run(["log", "500"]).status == 0)
        #expect(try broker.waitForRetained("water/ben/state") { jsonObject($0)["amount_ml"] as? Int == 500 } != nil)

        // percent: mum 50 % first, ben 25 % second, with no ml field and no ml sensor.
        #expect(try ben.run(["privacy", "percent"]).status == 0)
        let state = jsonObject(
            try broker.waitForRetained("water/ben/state") { jsonObject($0)["percent"] != nil && !$0.contains("_ml") })
        #expect(state["amount_ml"] == nil && state["goal_ml"] == nil && state["drinks"] == nil)
        #expect(state["percent"] as? Int == 25 && state["rank"] as? Int == 2)
        #expect(try waitUntil { try broker.retained("homeassistant/sensor/water_ben_amount_ml/config") == nil })
        #expect(try broker.retained("homeassistant/sensor/water_ben_percent/config") != nil)
        let board = jsonObject(try broker.retained("water/board"))
        let lines = board["members"] as? [[String: Any]] ?? []
        #expect(lines.map { $0["username"] as? String } == ["mum", "ben"])
        #expect(lines.map { $0["total_ml"] as? Int } == [1000, nil])

        // hidden: every topic of ben's cleared, and the board is mum's alone.
        #expect(try ben.run(["privacy", "hidden"]).status == 0)
        #expect(try waitUntil { try broker.retained("water/ben/state") == nil })
        for field in ["percent", "rank", "streak_days"] {
            #expect(try broker.retained("homeassistant/sensor/water_ben_\(field)/config") == nil)
        }
        let alone = jsonObject(
            try broker.waitForRetained("water/board") { !$0.contains("\"ben\"") })
        #expect((alone["members"] as? [[String: Any]])?.map { $0["username"] as? String } == ["mum"])
        #expect(server.stop() == 0)
    }

    @Test("a member removed while the server published nothing is cleared at its next connect")
    func removedWhileNotPublishing() throws {
        let broker = try MosquittoBroker()
        var server = try ServerProcess.fresh(["--mqtt", broker.address])
        _ = try family(server)
        #expect(try broker.waitForRetained("homeassistant/sensor/water_ben_rank/config") { _ in true } != nil)
        // Without --mqtt, ben goes; the broker keeps his sensors.
        server = try server.restarted()
        let mum = server.cli("mum-again")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["member", "rm", "ben", "--yes"]).status == 0)
        #expect(try broker.retained("homeassistant/sensor/water_ben_rank/config") != nil)

        server = try server.restarted(["--mqtt", broker.address])
        #expect(server.waitForLog("mqtt connected"))
        #expect(try waitUntil { try broker.retained("homeassistant/sensor/water_ben_rank/config") == nil })
        #expect(try broker.retained("water/ben/state") == nil)
        #expect(try broker.retained("homeassistant/sensor/water_mum_rank/config") != nil)
    }

    @Test("at the day's and the week's turn the state and the board are published again, with no write")
    func dayAndWeekTurn() throws {
        // Sunday 2026-11-29 23:59:56 UTC, the last seconds of week 2026-W48.
        let beforeMidnight = Int64(LocalDate("2026-11-30")!.daysSinceEpoch) * 86_400_000 - 4_000
        let broker = try MosquittoBroker()
        let server = try ServerProcess.fresh(["--mqtt", broker.address, "--clock", "\(beforeMidnight)"])
        #expect(server.waitForLog("mqtt connected"))
        let mum = server.cli("mum")
        #expect(try mum.run(["login", "mum", "--password-stdin"], input: adminPassword + "\n").status == 0)
        #expect(try mum.run(["log", "500", "--at", "2026-11-29T23:59Z"]).status == 0)
        let sunday = try broker.waitForRetained("water/mum/state") { jsonObject($0)["amount_ml"] as? Int == 500 }
        // Unless the machine was so slow that midnight has passed already.
        if jsonObject(sunday)["date"] as? String == "2026-11-29" {
            #expect(jsonObject(try broker.retained("water/board"))["week"] as? String == "2026-W48")
        }
        let monday = jsonObject(
            try broker.waitForRetained("water/mum/state") { jsonObject($0)["date"] as? String == "2026-11-30" })
        #expect(monday["amount_ml"] as? Int == 0)
        #expect(monday["drinks"] as? Int == 0)
        let board = jsonObject(
            try broker.waitForRetained("water/board") { jsonObject($0)["week"] as? String == "2026-W49" })
        #expect((board["members"] as? [[String: Any]])?.first?["total_ml"] as? Int == 0)
    }

    @Test("TLS to the broker: checked against --mqtt-ca; without it the system's CAs do not know the household's")
    func tlsBroker() throws {
        var template = Array("/tmp/water-mqtt-ca-XXXXXX".utf8CString)
        let folder = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = system("rm -rf '\(folder)'") }
        try makeHouseholdCA(in: folder)
        // The broker runs as the mosquitto user: its key must be readable by it (a test's key).
        chmod(folder, 0o755)
        for file in ["ca.pem", "server.pem", "server.key"] { chmod("\(folder)/\(file)", 0o644) }
        let broker = try MosquittoBroker(extraConfiguration: [
            "cafile \(folder)/ca.pem", "certfile \(folder)/server.pem", "keyfile \(folder)/server.key",
        ])
        broker.readerOptions = ["--cafile", "\(folder)/ca.pem", "--insecure"]  // the reader connects by address

        let untrusted = try ServerProcess.fresh(["--mqtt", "localhost:\(broker.port)", "--mqtt-tls"])
        #expect(untrusted.waitForLog("mqtt broker not connected"))
        #expect(untrusted.stop() == 0)
        #expect(!untrusted.log.contains("mqtt connected"))

        let server = try ServerProcess.fresh([
            "--mqtt", "localhost:\(broker.port)", "--mqtt-tls", "--mqtt-ca", "\(folder)/ca.pem",
        ])
        #expect(server.waitForLog("mqtt connected"))
        #expect(try broker.waitForRetained("water/mum/state") { jsonObject($0)["goal_ml"] as? Int == 2000 } != nil)
    }

    @Test(
        "each --mqtt mistake is a usage error (64) that names the option, and never shows a password file's content",
        arguments: [
            (["--mqtt-user", "water"], "--mqtt-user needs --mqtt HOST:PORT"),
            (["--mqtt-tls"], "--mqtt-tls needs --mqtt HOST:PORT"),
            (["--mqtt", "pi.local:mqtt"], "--mqtt must be the broker's HOST:PORT"),
            (["--mqtt", "pi.local:0"], "--mqtt must be the broker's HOST:PORT"),
            (["--mqtt", "pi.local", "--mqtt-password-file", "PASSWORD"], "--mqtt-password-file goes with --mqtt-user"),
            (["--mqtt", "pi.local", "--mqtt-user", "w", "--mqtt-password-file", "/nonexistent/p"], "cannot read it"),
            (["--mqtt", "pi.local", "--mqtt-user", "w", "--mqtt-password-file", "EMPTY"], "its first line is empty"),
            (["--mqtt", "pi.local", "--mqtt-ca", "PASSWORD"], "--mqtt-ca goes with --mqtt-tls"),
            (
                ["--mqtt", "pi.local", "--mqtt-tls", "--mqtt-ca", "/nonexistent/ca.pem"],
                "--mqtt-ca /nonexistent/ca.pem: cannot read it"
            ),
            (["--mqtt", "pi.local", "--mqtt-prefix", "water/#"], "--mqtt-prefix must be"),
            (["--mqtt", "pi.local", "--mqtt-prefix", "Water"], "--mqtt-prefix must be"),
        ])
    func optionMistakes(options: [String], message: String) throws {
        var template = Array("/tmp/water-mqtt-options-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = system("rm -rf '\(directory)'") }
        try "secret-in-the-file-93\n".write(toFile: "\(directory)/password", atomically: true, encoding: .utf8)
        try "\n".write(toFile: "\(directory)/empty", atomically: true, encoding: .utf8)
        let resolved = options.map {
            $0 == "PASSWORD" ? "\(directory)/password" : $0 == "EMPTY" ? "\(directory)/empty" : $0
        }
        let result = try run("water-server", ["serve", "--data", "\(directory)/data"] + resolved)
        #expect(result.status == 64)
        #expect(result.error.contains(message), "\(result.error)")
        #expect(!result.error.contains("secret-in-the-file-93"))
    }

    @Test("issue 32 item 27: a password for a broker not on loopback without --mqtt-tls is refused at start (64)")
    func passwordInClear() throws {
        var template = Array("/tmp/water-mqtt-clear-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = system("rm -rf '\(directory)'") }
        try "secret-in-the-file-94\n".write(toFile: "\(directory)/password", atomically: true, encoding: .utf8)
        let login = ["--mqtt-user", "water", "--mqtt-password-file", "\(directory)/password"]
        for broker in ["homeassistant.local:1883", "192.168.1.20", "[2001:db8::1]:1883", "10.0.0.1:8883"] {
            let result = try run("water-server", ["serve", "--data", "\(directory)/data", "--mqtt", broker] + login)
            #expect(result.status == 64, "\(broker): \(result)")
            #expect(
                result.error.contains("would send the broker password unencrypted")
                    && result.error.contains("--mqtt-tls") && result.error.contains("--mqtt-insecure"),
                "\(result.error)")
            #expect(!result.error.contains("secret-in-the-file-94"))
        }
        // Said on purpose, it starts (here it stops at the data folder that is not there).
        let insecure = try run(
            "water-server",
            ["serve", "--data", "\(directory)/data", "--mqtt", "192.168.1.20", "--mqtt-insecure"] + login)
        #expect(insecure.status != 64 && !insecure.error.contains("unencrypted"), "\(insecure)")
        let refused = try run(
            "water-server", ["serve", "--data", "\(directory)/data", "--mqtt-insecure", "--mqtt", "127.0.0.1"])
        #expect(refused.status == 64 && refused.error.contains("--mqtt-insecure goes with --mqtt-password-file"))
    }

    @Test("WATER_MQTT (the env file's) is --mqtt's default, checked as strictly")
    func environmentBroker() throws {
        let result = try run(
            "water-server", ["serve", "--data", "/nonexistent/data"], environment: ["WATER_MQTT": "not a broker"])
        #expect(result.status == 64)
        #expect(result.error.contains("WATER_MQTT must be the broker's HOST:PORT"), "\(result.error)")

        let broker = try MosquittoBroker()
        let server = try ServerProcess.fresh(environment: ["WATER_MQTT": broker.address])
        #expect(server.waitForLog("mqtt connected"))
        #expect(try broker.waitForRetained("water/mum/state") { _ in true } != nil)
    }
}
