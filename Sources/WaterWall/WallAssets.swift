/// The page's script and style, served as files of their own (`/wall.js`, `/wall.css`) so the
/// Content-Security-Policy can forbid every inline script and style. No framework, no build step.
enum WallAssets {
    /// Listens to the page's live stream (Server-Sent Events) and puts each board in place.
    /// EventSource reconnects by itself; a stream the server closed is opened again after 5 s.
    static let script = """
        "use strict";
        (function () {
          var board = document.getElementById("board");
          var live = document.getElementById("live");
          var url = location.pathname.replace(/\\/$/, "") + "/events";
          function connect() {
            var source = new EventSource(url);
            source.addEventListener("board", function (event) {
              board.innerHTML = event.data;
              live.textContent = "live · " + new Date().toLocaleTimeString();
            });
            source.onerror = function () {
              live.textContent = "reconnecting…";
              if (source.readyState === EventSource.CLOSED) {
                setTimeout(connect, 5000);
              }
            };
          }
          connect();
        })();

        """

    /// Big enough to read across a kitchen on a 10-inch tablet, portrait or landscape; light or
    /// dark as the tablet prefers.
    static let style = """
        :root { color-scheme: light dark; --fg: #102030; --bg: #f6f8fb; --muted: #5a6b7c; --accent: #1769d1; }
        @media (prefers-color-scheme: dark) {
          :root { --fg: #e8eef5; --bg: #0e1520; --muted: #9fb0c2; --accent: #5aa8ff; }
        }
        html { font-size: clamp(18px, 2.6vmax, 34px); }
        body { margin: 0; padding: 1rem 1.4rem; font-family: system-ui, sans-serif; color: var(--fg); background: var(--bg); }
        h1 { font-size: 1.6rem; margin: 0 0 0.2rem; }
        h2 { font-size: 1.3rem; margin: 1.2rem 0 0.4rem; }
        .leader { font-size: 1.4rem; font-weight: 600; color: var(--accent); margin: 0 0 0.8rem; }
        table { width: 100%; border-collapse: collapse; }
        th { text-align: left; color: var(--muted); font-weight: 500; font-size: 0.8rem; }
        td, th { padding: 0.35rem 0.4rem; }
        tbody tr:nth-child(odd) { background: color-mix(in srgb, var(--fg) 6%, transparent); }
        .rank { font-weight: 700; width: 2rem; }
        .name { font-weight: 600; }
        .bar { width: 35%; }
        meter { width: 100%; height: 1.1rem; }
        .today { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.4rem;
          grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); }
        .today li { display: grid; grid-template-columns: 1fr; gap: 0.1rem; }
        .figure { color: var(--muted); font-size: 0.85rem; }
        footer { margin-top: 1rem; color: var(--muted); font-size: 0.7rem; }
        @media (orientation: portrait) { .bar { width: 28%; } }

        """
}
