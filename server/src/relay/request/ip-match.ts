import { BlockList, isIP } from 'node:net';

/** True when the address lies in one of a comma list of CIDRs. */
export const ipInSubnets = (address: string, subnets: string): boolean => {
  const ip = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  const family = isIP(ip);
  if (family === 0) return false;
  const list = new BlockList();
  for (const cidr of subnets.split(',')) {
    const [network = '', bits = ''] = cidr.trim().split('/');
    const networkFamily = isIP(network);
    if (networkFamily === 0 || bits === '') continue;
    try {
      list.addSubnet(network, Number(bits), networkFamily === 4 ? 'ipv4' : 'ipv6');
    } catch {
      // an invalid range never matches
    }
  }
  return list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
};
