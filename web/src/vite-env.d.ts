/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The server's HTTP base address when the console is served elsewhere (spec §7); empty by default. */
  readonly VITE_SERVER_BASE?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
