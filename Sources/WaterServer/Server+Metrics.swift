import WaterStore

extension Server {
    /// What the wall's `/metrics` shows of the server: the figures the status file has
    /// (connections, members, archives in memory, RssAnon, the clock), the commit groups'
    /// counts, the calls answered by method and status and how long they took, the log's syncs,
    /// segments and snapshots, refused connections, and deliveries. Nothing of any member's data.
    func metrics() -> MetricsText {
        let (loaded, protected, _, dropped) = services.store.loadedStatus
        let members = (try? services.store.accounts.read { $0.accounts.count }) ?? 0
        let groups = services.store.committer.currentStatistics
        var text = MetricsText()
        text.add("water_connections_open", .gauge, "Protocol connections open now.", connectionCount)
        text.add("water_members", .gauge, "Members of the household.", members)
        text.add("water_archives_loaded", .gauge, "Archives in memory.", loaded)
        text.add(
            "water_archives_dropped_total", .counter, "Idle archives dropped from memory since the start.", dropped)
        text.add(
            "water_archives_protected", .gauge, "Archives the server refuses to change (damaged).", protected.count)
        text.add(
            "water_memory_private_bytes", .gauge, "The server's private memory (RssAnon).",
            (Self.privateMemoryKiB() ?? 0) * 1024)
        text.add("water_commit_groups_total", .counter, "Groups of writes committed to the log.", groups.groups)
        text.add("water_commit_writes_total", .counter, "Writes committed, in all groups.", groups.items)
        text.add("water_commit_syncs_total", .counter, "fdatasync calls of the log.", groups.syncs)
        text.add("water_commit_failures_total", .counter, "Groups whose sync failed (rolled back).", groups.failures)
        text.add(
            "water_commit_deferred_writes_total", .counter, "Writes left for the next group by the group's cap.",
            groups.deferredWrites)
        text.add(
            "water_clock_behind", .gauge, "1 while the server's clock is behind (writes refused).",
            services.clock.reading().isBehind ? 1 : 0)
        text.add(
            "water_uptime_seconds", .gauge, "Seconds since the server started.",
            Int(max(services.now() - services.startedAt, 0) / 1000))
        text.add(
            histogram: "water_sync_duration_seconds", "How long each fdatasync of the log took.",
            [("", services.store.committer.syncDurations.snapshot())])
        let segments = services.store.logSegments
        text.add("water_log_segments", .gauge, "Segments of the log in use.", segments.count)
        text.add("water_log_segment_bytes", .gauge, "Bytes of the log's segments in use.", segments.bytes)
        text.add(
            histogram: "water_snapshot_duration_seconds",
            "How long each snapshot (an archive's log folded into its file) took to write.",
            [("", services.store.snapshotDurations)])
        services.refusals.add(to: &text)
        services.calls.add(to: &text)
        services.configuration.deliveries.add(to: &text)
        return text
    }
}
