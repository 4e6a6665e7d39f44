import { compare, hash } from 'bcryptjs';

/** bcrypt cost 10, as one-api (Go's bcrypt.DefaultCost): existing one-api hashes keep working. */
const COST = 10;

export const hashPassword = (plain: string): Promise<string> => hash(plain, COST);

export const verifyPassword = async (plain: string, hashed: string): Promise<boolean> => {
  if (!hashed.startsWith('$2')) return false;
  return compare(plain, hashed);
};
