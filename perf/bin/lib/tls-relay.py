# tls-relay.py -- plain TCP on a loopback port, relayed over mutual TLS (ALPN h2, a client certificate) to a server.
# It lets a tool that has no client certificate option, h2spec, test the key server's HTTP/2 behind its mutual TLS.
# usage: python3 tls-relay.py LISTEN_PORT HOST PORT CLIENT_CERT CLIENT_KEY
import asyncio
import ssl
import sys

listen_port, host, port, cert, key = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
tls = ssl.create_default_context()
tls.check_hostname = False
tls.verify_mode = ssl.CERT_NONE  # the server is ours, on loopback; what is tested is its HTTP/2, not its certificate
tls.load_cert_chain(cert, key)
tls.set_alpn_protocols(["h2"])


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


async def relay(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port, ssl=tls,
                                                                     server_hostname="localhost")
    except (OSError, ssl.SSLError):
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))


async def main():
    server = await asyncio.start_server(relay, "127.0.0.1", listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
