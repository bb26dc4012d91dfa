"""Virtual BLE controllers on one bumble LocalLink, one H4-over-TCP server per port.

Usage: controllers.py PORT [PORT …]   (bumble.apps.controllers accepts exactly two; tests need more)
"""
import asyncio
import sys

from bumble.controller import Controller
from bumble.link import LocalLink
from bumble.transport import open_transport


async def main() -> None:
    link = LocalLink()
    transports = []
    for i, port in enumerate(sys.argv[1:]):
        t = await open_transport(f"tcp-server:127.0.0.1:{port}")
        transports.append(t)
        Controller(f"C{i}", host_source=t.source, host_sink=t.sink, link=link)
    print("ready", flush=True)
    await asyncio.get_running_loop().create_future()


asyncio.run(main())
