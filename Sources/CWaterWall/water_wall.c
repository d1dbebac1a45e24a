#define _GNU_SOURCE /* POLLRDHUP */
#include "water_wall.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>

struct MHD_Daemon *water_wall_start(
    const char *host, uint16_t port, const char *cert_pem, const char *key_pem,
    struct water_wall_limits limits, MHD_AcceptPolicyCallback accept, MHD_NotifyConnectionCallback notify,
    MHD_AccessHandlerCallback handler, void *context, const char **error) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    struct addrinfo *found = NULL;
    if (getaddrinfo(host, NULL, &hints, &found) != 0 || found == NULL) {
        *error = "the address does not resolve";
        return NULL;
    }
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    memcpy(&address, found->ai_addr, found->ai_addrlen);
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    if (address.ss_family == AF_INET6) {
        ((struct sockaddr_in6 *)&address)->sin6_port = htons(port);
        flags |= MHD_USE_IPv6;
    } else {
        ((struct sockaddr_in *)&address)->sin_port = htons(port);
    }
    freeaddrinfo(found);
    if (cert_pem != NULL && key_pem != NULL) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
            *error = "this libmicrohttpd has no TLS";
            return NULL;
        }
        flags |= MHD_USE_TLS;
    }
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_SOCK_ADDR, 0, &address},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)limits.connections, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)limits.connections_per_address, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)limits.request_memory, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)limits.idle_timeout_seconds, NULL},
        {MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, NULL},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, NULL},
        {cert_pem ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *)cert_pem},
        {key_pem ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, (void *)key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_Daemon *daemon =
        MHD_start_daemon(flags, port, accept, NULL, handler, context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    if (daemon == NULL) *error = "the wall's address is in use or cannot be bound";
    return daemon;
}

uint16_t water_wall_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

void water_wall_peer(struct MHD_Connection *connection, char *out, size_t size) {
    out[0] = '\0';
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    water_wall_address(info->client_addr, out, size);
}

int water_wall_is_start(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

int water_wall_descriptor(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

void water_wall_address(const struct sockaddr *peer, char *out, size_t size) {
    out[0] = '\0';
    if (peer == NULL) return;
    if (peer->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)peer)->sin_addr, out, (socklen_t)size);
    } else if (peer->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)peer)->sin6_addr, out, (socklen_t)size);
    }
}

int water_wall_peer_gone(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == NULL) return 1;
    struct pollfd poller = {.fd = info->connect_fd, .events = POLLRDHUP, .revents = 0};
    if (poll(&poller, 1, 0) < 0) return 0;
    return (poller.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}
