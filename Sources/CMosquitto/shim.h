#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

/* libmosquitto (Debian's libmosquitto-dev): the MQTT client the Home Assistant publisher uses. */
#include <mosquitto.h>

#endif
