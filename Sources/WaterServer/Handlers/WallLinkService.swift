import WaterCore
import WaterProtocol
import WaterStore

/// `water.v1.Board`'s wall links (admins): read-only, revocable links to the kitchen wall,
/// kept with the accounts as digests. The token leaves the server once, in CreateWallLink's
/// answer.
struct WallLinkService: Service {
    let archives: ArchiveAccess
    let wall: WallAddress

    func register(in router: inout Router) {
        router.onLoop(.admin, createWallLink, listWallLinks, revokeWallLink)
    }

    func createWallLink(_ request: WaterV1.CreateWallLinkRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.CreateWallLinkResponse
    {
        let label = request.label
        guard label.utf8.count <= WallLink.maximumLabelBytes,
            !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw WaterError.invalidField(
                "label",
                "a label is at most \(WallLink.maximumLabelBytes) bytes on one line, without control characters")
        }
        let (token, digest) = WallLinks.make()
        let link = WallLink(digest: digest, madeBy: call.account.id, madeAtUnixMilliseconds: call.now, label: label)
        return try archives.commitReturning(
            for: call, archives.accounts,
            { (book: AccountBook) throws(WaterError) in
                guard book.wallLinks.count < WallLink.maximumCount else {
                    throw WaterError(
                        .resourceExhausted,
                        "the household has \(WallLink.maximumCount) wall links, the most it keeps: revoke one first")
                }
                return Decision([.wallLinkMade(link)])
            },
            result: { book, _ in
                WaterV1.CreateWallLinkResponse(
                    link: Self.wire(link, in: book), path: WallLinks.path(token),
                    wallScheme: wall.current?.scheme ?? "",
                    wallPort: UInt32(wall.current?.port ?? 0))
            })
    }

    func listWallLinks(_ request: WaterV1.ListWallLinksRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.ListWallLinksResponse
    {
        WaterV1.ListWallLinksResponse(
            links: try archives.read(archives.accounts) { book in
                book.wallLinks.values.sorted { ($0.madeAtUnixMilliseconds, $0.id) < ($1.madeAtUnixMilliseconds, $1.id) }
                    .map { Self.wire($0, in: book) }
            })
    }

    func revokeWallLink(_ request: WaterV1.RevokeWallLinkRequest, _ call: CallContext) throws(WaterError)
        -> WaterV1.RevokeWallLinkResponse
    {
        try archives.commitReturning(
            for: call, archives.accounts,
            { (book: AccountBook) throws(WaterError) in
                guard let link = book.wallLinks.values.first(where: { $0.id == request.id }) else {
                    throw WaterError(.notFound, "no wall link \(request.id): water-client wall ls lists them")
                }
                return Decision([.wallLinkRevoked(link.digest)])
            },
            result: { _, _ in WaterV1.RevokeWallLinkResponse() })
    }

    private static func wire(_ link: WallLink, in book: AccountBook) -> WaterV1.WallLink {
        WaterV1.WallLink(
            id: link.id, label: link.label, madeAtUnixMs: link.madeAtUnixMilliseconds,
            madeBy: book.accounts[link.madeBy]?.username ?? "")
    }
}
