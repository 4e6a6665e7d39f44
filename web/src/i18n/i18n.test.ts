// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { en } from './en.js';
import { browserLanguage } from './i18n.js';
import { zh } from './zh.js';

const leaves = (value: object, prefix = ''): string[] =>
  Object.entries(value).flatMap(([key, child]) =>
    typeof child === 'string' ? [`${prefix}${key}`] : leaves(child as object, `${prefix}${key}.`),
  );

describe('catalogues', () => {
  it('have the same keys in English and Chinese, none empty', () => {
    expect(leaves(zh)).toEqual(leaves(en));
    for (const catalogue of [en, zh])
      for (const key of leaves(catalogue)) {
        const text = key
          .split('.')
          .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], catalogue);
        expect(text, key).not.toBe('');
      }
  });

  it('keep the interpolations of every text', () => {
    const placeholders = (text: string) =>
      [...text.matchAll(/\{\{(\w+)\}\}|<(\w+)>/g)].map((match) => match[0]).sort();
    const read = (catalogue: object, key: string) =>
      key
        .split('.')
        .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], catalogue) as string;
    for (const key of leaves(en))
      expect(placeholders(read(zh, key)), key).toEqual(placeholders(read(en, key)));
  });

  it('default to the browser language: Chinese for zh-*, English otherwise', () => {
    expect(browserLanguage(['zh-CN', 'en'])).toBe('zh');
    expect(browserLanguage(['zh-TW'])).toBe('zh');
    expect(browserLanguage(['en-US', 'zh-CN'])).toBe('en');
    expect(browserLanguage(['fr'])).toBe('en');
    expect(browserLanguage([])).toBe('en');
  });
});
