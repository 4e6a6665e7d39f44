/**
 * The few browser globals the tests use inside `page.evaluate` callbacks (which run in Chromium).
 * The e2e project has no DOM library: it also type-checks server code, whose fetch types clash with
 * the DOM's.
 */
declare const localStorage: {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
};
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const document: {
  documentElement: { scrollWidth: number };
  head: { append(node: unknown): void };
  addEventListener(type: 'DOMContentLoaded', listener: () => void): void;
  createElement(tag: 'style'): { textContent: string | null };
  querySelector(
    selector: string,
  ): { getBoundingClientRect(): { width: number; left: number; right: number } } | null;
};
declare const window: { innerWidth: number };
