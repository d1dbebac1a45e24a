/* The kitchen wall's few calls into libmicrohttpd that Swift cannot make itself (MHD's start and
 * info calls are variadic). WaterWall imports this module only: it brings microhttpd.h's types. */
#ifndef WATER_WALL_H
#define WATER_WALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <microhttpd.h>

/* The wall's bounds, which MHD enforces itself (see README, "The kitchen wall"). */
struct water_wall_limits {
    unsigned int connections;           /* open page connections in all */
    unsigned int connections_per_address;
    size_t request_memory;              /* the request line and headers of one connection */
    unsigned int idle_timeout_seconds;
};

/* Starts MHD on its own threads (an internal polling thread and a thread per connection) on
 * host:port (a numeric address or a name; the first address it resolves to). cert_pem and key_pem
 * both NULL: plaintext (the caller allows it on loopback only). NULL when it cannot start; then
 * *error holds a short reason. MHD's start and info calls are variadic, which Swift cannot call.
 * accept is asked about each new connection (on the accepting thread) and notify told when one
 * starts and when it closes (the caller counts connections itself: limits are MHD's backstop). */
struct MHD_Daemon *water_wall_start(
    const char *host, uint16_t port, const char *cert_pem, const char *key_pem,
    struct water_wall_limits limits, MHD_AcceptPolicyCallback accept, MHD_NotifyConnectionCallback notify,
    MHD_AccessHandlerCallback handler, void *context, const char **error);

/* An address as text (no port) into out; "" when it is neither IPv4 nor IPv6. */
void water_wall_address(const struct sockaddr *address, char *out, size_t size);

/* Whether a connection notification says it started (not closed): Swift cannot name the case. */
int water_wall_is_start(enum MHD_ConnectionNotificationCode code);

/* The connection's socket; -1 when unknown. */
int water_wall_descriptor(struct MHD_Connection *connection);

/* The port the daemon is bound to (0 when unknown). */
uint16_t water_wall_port(struct MHD_Daemon *daemon);

/* Whether the peer of a connection has closed or reset it (poll with POLLRDHUP, not waiting): a
 * live stream's thread asks while it waits for the next board, since MHD does not watch the socket
 * then. */
int water_wall_peer_gone(struct MHD_Connection *connection);

/* The peer's address as text (no port) into out; "" when unknown. */
void water_wall_peer(struct MHD_Connection *connection, char *out, size_t size);

#endif
