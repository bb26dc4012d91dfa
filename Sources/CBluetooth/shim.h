#ifndef VITALSIM_CBLUETOOTH_SHIM_H
#define VITALSIM_CBLUETOOTH_SHIM_H
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

/// The Linux HCI user channel (exclusive access to one adapter), as a C helper so Swift needs no
/// struct punning: returns the socket, or -1 with errno set.
static inline int vitalsim_hci_user_channel(int dev_id) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (fd < 0) return -1;
    struct sockaddr_hci addr = {0};
    addr.hci_family = AF_BLUETOOTH;
    addr.hci_dev = (unsigned short)dev_id;
    addr.hci_channel = HCI_CHANNEL_USER;
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) { int e = errno; close(fd); errno = e; return -1; }
    return fd;
}
#endif
