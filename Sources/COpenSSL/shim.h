#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/ssl.h>

#endif
