import Foundation
import WaterClient
import WaterProtocol

/// What water-client reads from files: an export given to `import` (JSON or CSV), a queued
/// write in the outbox, the status cache and the prompt's figures beside it. Another program,
/// a full disk or a hand edit may have left anything there.
enum ClientFileFuzzing {
    static func importJSON(_ bytes: [UInt8]) {
        guard let histories = try? JSONDecoder().decode([WaterV1.MemberHistory].self, from: Data(bytes)) else {
            return
        }
        checkReencodes(histories)
    }

    /// The CSV form, as a spreadsheet may have left it: what reads must be written and read
    /// back the same, as an export of an import would be.
    static func importCSV(_ bytes: [UInt8]) {
        guard let histories = try? HistoryCSV.read(String(decoding: bytes, as: UTF8.self), now: csvNow) else {
            return
        }
        guard let again = try? HistoryCSV.read(HistoryCSV.write(histories), now: csvNow) else {
            preconditionFailure("HistoryCSV does not read what it wrote")
        }
        precondition(again == histories, "a CSV history changed on a round trip")
    }

    /// The moment a fuzzed CSV is imported at (drinks after it are refused): fixed, so an input
    /// does the same on every run.
    private static let csvNow: Int64 = 1_764_590_400_000

    /// A queued write that decodes must be written and read back unchanged: the outbox
    /// rewrites a write when it is refused or retried.
    static func outbox(_ bytes: [UInt8]) {
        guard let write = Outbox.decode(bytes, name: "0001") else { return }
        let again = Outbox.decode(Array(Outbox.encode(write).utf8), name: "0001")
        precondition(again == write, "an outbox write changed on a round trip")
    }

    static func statusCache(_ bytes: [UInt8]) {
        if let cache = try? JSONDecoder().decode(StatusCache.self, from: Data(bytes)) { checkReencodes(cache) }
        _ = PromptFigures(text: String(decoding: bytes, as: UTF8.self))
    }

    static func importSeeds() -> [[UInt8]] {
        let history = WaterV1.MemberHistory(
            member: WaterV1.Member(username: "dad", displayName: "Dad"),
            settings: WaterV1.Settings(dailyGoalMl: 2500, usualCupMl: 330, quickCupsMl: [150, 250], timeZone: "UTC"),
            entries: [
                WaterV1.WaterEntry(
                    entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250, atUnixMs: 1_764_504_000_000,
                    date: "2025-11-30")
            ])
        return [(try? JSONEncoder().encode([history])).map(Array.init) ?? [], Array("[]".utf8)]
    }

    /// Every kind of row, quoted fields, an entry with a drink and one from before drinks.
    static func csvSeeds() -> [[UInt8]] {
        let current = #"""
            kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color,drink,factor,made_by
            cup,mum,,,,250,,,,,,,
            entry,mum,0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e,2025-11-30,1764504000000,200,,,,,milk,1.50,dad
            entry,mum,0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5f,2025-11-30,1764504060000,250,,,,,,,
            goal,mum,,2025-11-30,,,2500,,,,,,
            habit,mum,0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d60,,1764504000000,,,"walk, then ""tea""",run,green,,,
            checkin,mum,0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d60,2025-11-30,,,,,,,,,
            excused,mum,,2025-11-29,,,,sick,,,,,

            """#
        let beforeDrinks =
            "kind,member,id,date,at_unix_ms,amount_ml,goal_ml,name,icon,color\r\n"
            + "entry,dad,0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d61,2025-11-30,1764504000000,330,,,,\r\n"
        return [Array(current.utf8), Array(beforeDrinks.utf8)]
    }

    /// A queued drink as `water-client log` writes it, and the same write refused.
    static func outboxSeeds() -> [[UInt8]] {
        let request = WaterV1.LogWaterRequest(
            entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250, atUnixMs: 1_764_504_000_000)
        let hex = request.serializedBytes().map {
            String($0, radix: 16).count == 1 ? "0\(String($0, radix: 16))" : String($0, radix: 16)
        }.joined()
        let queued = """
            water-outbox 1
            kind log
            server pi.local:7420
            username dad
            queued_at_unix_ms 1764504000000
            request \(hex)
            """
        return [queued + "\nend\n", queued + "\nrefused a drink must be between 1 and 2000 ml\nend\n"].map {
            Array($0.utf8)
        }
    }

    static func statusSeeds() -> [[UInt8]] {
        var cache = StatusCache(server: "pi.local:7420", username: "dad")
        cache.timeZone = "Europe/Berlin"
        cache.record(
            entry: WaterV1.WaterEntry(
                entryID: "0192e4a0-7b5c-7cc3-8a1e-6f1d2b3c4d5e", amountMl: 250, atUnixMs: 1_764_504_000_000,
                date: "2025-11-30"), now: 1_764_504_000_000)
        let figures = """
            date 2025-11-30
            amount_ml 250
            goal_ml 2000
            unsent 1
            time_zone Europe/Berlin
            updated_at_unix_ms 1764504000000
            heard_today 1
            heard 1

            """
        return [(try? JSONEncoder().encode(cache)).map(Array.init) ?? [], Array(figures.utf8)]
    }

    /// Encoding what decoded and decoding it again must give the same value.
    private static func checkReencodes<Value: Codable & Equatable>(_ value: Value) {
        guard let data = try? JSONEncoder().encode(value) else { preconditionFailure("\(Value.self) does not encode") }
        guard let again = try? JSONDecoder().decode(Value.self, from: data) else {
            preconditionFailure("\(Value.self) does not decode what it encoded")
        }
        precondition(again == value, "\(Value.self) changed on a round trip")
    }
}
