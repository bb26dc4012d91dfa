"""A bumble peripheral used by VitalSim's tests to exercise VitalSim's central.

Usage: peripheral.py TRANSPORT
Serves Heart Rate (0x2A37 notify), Blood Pressure (0x2A35 indicate) and Battery (0x2A19 read/notify),
advertises with its service UUIDs, prints `advertising ADDRESS`, waits until all three are subscribed,
sends the values below (each indication confirmed before the next), prints `sent N` and stays up.
"""
import asyncio
import sys

from bumble.core import AdvertisingData, UUID
from bumble.device import Device
from bumble.gatt import Characteristic, Service
from bumble.hci import Address
from bumble.transport import open_transport

HEART_RATE = ["164852035c03", "0d2c01d204", "1e4a1e042404", "0648"]
BLOOD_PRESSURE = ["1e780050005d00e80705110a1e004800010400"]
BATTERY = ["5f"]


async def main() -> None:
    async with await open_transport(sys.argv[1]) as t:
        device = Device.with_hci("bumble-vitals", Address("C0:DE:C0:DE:C0:DE"), t.source, t.sink)
        hrm = Characteristic("2A37", Characteristic.Properties.NOTIFY, Characteristic.READABLE, b"")
        bpm = Characteristic("2A35", Characteristic.Properties.INDICATE, Characteristic.READABLE, b"")
        battery = Characteristic("2A19", Characteristic.Properties.READ | Characteristic.Properties.NOTIFY, Characteristic.READABLE, b"\x5f")
        device.add_services([Service("180D", [hrm]), Service("1810", [bpm]), Service("180F", [battery])])
        device.advertising_data = bytes(AdvertisingData([
            (AdvertisingData.COMPLETE_LOCAL_NAME, b"bumble-vitals"),
            (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, bytes(UUID("180D")) + bytes(UUID("1810")) + bytes(UUID("180F"))),
        ]))
        await device.power_on()
        await device.start_advertising(auto_restart=True)
        print("advertising", str(device.random_address).split("/")[0], flush=True)
        subscribed: set[str] = set()
        ready = asyncio.Event()

        def on_subscription(connection, characteristic, notify_enabled, indicate_enabled):
            if notify_enabled or indicate_enabled:
                subscribed.add(str(characteristic.uuid))
            if len(subscribed) == 3:
                ready.set()

        device.on("characteristic_subscription", on_subscription)
        await asyncio.wait_for(ready.wait(), 60)
        sent = 0
        for h in HEART_RATE:
            await device.notify_subscribers(hrm, bytes.fromhex(h))
            sent += 1
        for b in BLOOD_PRESSURE:
            await device.indicate_subscribers(bpm, bytes.fromhex(b))
            sent += 1
        for b in BATTERY:
            await device.notify_subscribers(battery, bytes.fromhex(b))
            sent += 1
        print("sent", sent, flush=True)
        await asyncio.sleep(30)


asyncio.run(main())
