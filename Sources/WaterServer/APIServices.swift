/// The services of `proto/`, by name: what the router registers and the handler tests call.
/// Each is made when asked for, from the parts of the server it needs (a few references).
struct APIServices: Sendable {
    let server: ServerServices

    /// How the services reach the archives (all but the board's, which reads the boards).
    var archives: ArchiveAccess {
        ArchiveAccess(store: server.store, boards: server.boards, streams: server.sessionStreams, clock: server.clock)
    }

    var accounts: AccountService {
        AccountService(
            archives: archives, hasher: server.hasher, throttle: server.throttle,
            householdTimeZone: server.configuration.householdTimeZone, timeZones: server.configuration.timeZones,
            peerLog: server.peerLog)
    }

    var tracker: TrackerService {
        TrackerService(archives: archives, timeZones: server.configuration.timeZones, reads: server.reads)
    }

    var drinks: DrinkService { DrinkService(archives: archives) }

    var board: BoardService {
        BoardService(boards: server.boards, hub: server.boardHub, streams: server.sessionStreams, reads: server.reads)
    }

    var todo: TodoService {
        TodoService(archives: archives, reads: server.reads, zone: server.configuration.householdTimeZone)
    }

    var habits: HabitService { HabitService(archives: archives) }

    var excuses: ExcuseService { ExcuseService(archives: archives) }

    var reminders: ReminderService { ReminderService(archives: archives, reminded: server.reminded) }

    var transfer: TransferService {
        TransferService(archives: archives, exportQueue: server.exportQueue, importQueue: server.importQueue)
    }

    var wallLinks: WallLinkService { WallLinkService(archives: archives, wall: server.wallAddress) }

    var all: [any Service] {
        [accounts, tracker, drinks, board, todo, habits, excuses, reminders, transfer, wallLinks]
    }
}
