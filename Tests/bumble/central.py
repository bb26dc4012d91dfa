"""A bumble central used by VitalSim's tests as an independent BLE peer.

Usage: central.py TRANSPORT ADDRESS COUNT UUIDS [--racp] [--reconnect]
Connects to ADDRESS (random static), discovers all services, reads Body Sensor Location or any
readable characteristic it is asked to, subscribes to each UUID (hex, comma-separated; bumble picks
notify or indicate from the properties), and prints one JSON list of what arrived once COUNT values
have been received. Heart Rate Measurements are also decoded with bumble's own HeartRateService.
With --racp it then writes RACP "report all stored records" and waits for the RACP indication.
With --reconnect it waits for the peripheral to drop the link, connects again, subscribes again,
fetches the stored records with RACP "report all", and then collects until COUNT values arrived.
"""
import asyncio
import json
import sys
import time

from bumble.core import UUID
from bumble.device import Device, Peer
from bumble.hci import Address
from bumble.profiles.heart_rate_service import HeartRateService
from bumble.transport import open_transport


async def main() -> None:
    transport, address, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    uuids = [int(u, 16) for u in sys.argv[4].split(",")]
    racp = "--racp" in sys.argv[5:]
    reconnect = "--reconnect" in sys.argv[5:]
    if racp or reconnect:
        uuids = uuids + [0x2A52]  # GLS: indications on RACP must be enabled before writing it
    async with await open_transport(transport) as t:
        # Each central needs its own address: bumble's LocalLink routes ACL by address.
        port = int(transport.rsplit(":", 1)[1])
        own = Address(f"F0:F1:F2:F3:{(port >> 8) & 0xFF:02X}:{port & 0xFF:02X}")
        device = Device.with_hci("bumble-central", own, t.source, t.sink)
        await device.power_on()
        received: list[dict] = []
        enough = asyncio.Event()
        racp_done = asyncio.Event()

        def listener(uuid: int):
            def on_value(value: bytes) -> None:
                data = bytes(value)
                record = {"uuid": f"0x{uuid:04X}", "hex": data.hex(), "t": time.time()}
                if uuid == 0x2A37:
                    m = HeartRateService.HeartRateMeasurement.from_bytes(data)
                    record["heartRate"] = m.heart_rate
                    record["rr"] = [round(x * 1024) for x in (m.rr_intervals or ())]
                    record["contact"] = m.sensor_contact_detected
                if uuid == 0x2A52 and data[:1] == b"\x06":
                    racp_done.set()
                received.append(record)
                if len([r for r in received if r["uuid"] != "0x2A52"]) >= count:
                    enough.set()

            return on_value

        async def session():
            connection = await device.connect(Address(address, Address.RANDOM_DEVICE_ADDRESS), timeout=60)
            peer = Peer(connection)
            await peer.discover_all()
            for uuid in uuids:
                characteristic = peer.get_characteristics_by_uuid(UUID.from_16_bits(uuid))[0]
                await characteristic.subscribe(listener(uuid))
            return connection, peer

        connection, peer = await session()
        services = sorted(f"0x{s.uuid.to_hex_str()}" for s in peer.services)
        if reconnect:
            dropped = asyncio.Event()
            connection.on("disconnection", lambda *_: dropped.set())
            await asyncio.wait_for(dropped.wait(), 60)
            connection, peer = await session()
            racp = True
        else:
            await asyncio.wait_for(enough.wait(), 60)
        if racp:
            racp_done.clear()
            control = peer.get_characteristics_by_uuid(UUID.from_16_bits(0x2A52))[0]
            await control.write_value(bytes([0x01, 0x01]), with_response=True)
            await asyncio.wait_for(racp_done.wait(), 30)
        await asyncio.wait_for(enough.wait(), 60)
        print(json.dumps({"services": services, "received": received}))
        sys.stdout.flush()


asyncio.run(main())
