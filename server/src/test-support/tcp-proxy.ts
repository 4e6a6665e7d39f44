import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/** A loopback TCP proxy a fault test drops and restores: the database or Redis "goes away". */
export interface TcpProxy {
  readonly port: number;
  /** Cuts every open connection and resets new ones until `restore`. */
  drop(): void;
  restore(): void;
  close(): Promise<void>;
}

export const startTcpProxy = async (targetHost: string, targetPort: number): Promise<TcpProxy> => {
  const sockets = new Set<Socket>();
  let down = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  const cutAll = () => {
    for (const socket of sockets) socket.resetAndDestroy();
  };
  return {
    port,
    drop: () => {
      down = true;
      cutAll();
    },
    restore: () => {
      down = false;
    },
    close: () =>
      new Promise<void>((done) => {
        cutAll();
        server.close(() => done());
      }),
  };
};
