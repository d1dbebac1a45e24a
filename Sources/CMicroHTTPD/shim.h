#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

/* libmicrohttpd (Debian's libmicrohttpd-dev): the HTTP server of the kitchen wall (serve --wall). */
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

#endif
