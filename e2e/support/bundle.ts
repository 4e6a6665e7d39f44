/** The console's initial JavaScript: the entry module and every module it preloads. */
export const initialScripts = (html: string): string[] =>
  [...html.matchAll(/<(?:script[^>]+src|link[^>]+rel="modulepreload"[^>]+href)="\/([^"]+\.js)"/g)].map(
    (match) => match[1] ?? '',
  );
