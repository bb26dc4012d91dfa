#ifndef VITALSIM_CMOSQUITTO_SHIM_H
#define VITALSIM_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
