/** Sluice's version, shown in /api/status. */
export const SLUICE_VERSION = 'v0.1.0';
