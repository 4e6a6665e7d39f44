// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { isEmbeddedUrl, markdownToHtml } from './markdown.js';

/** The Markdown rules (sanitising needs a real browser: e2e/console-content.test.ts). */
describe('markdownToHtml', () => {
  it('renders headings, emphasis, links, code and lists', () => {
    const html = markdownToHtml(
      '# Title\n\nSome **bold** and *soft* `code` [docs](https://x.test)\n\n- one\n- two\n\n1. first',
    );
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<em>soft</em>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<a href="https://x.test" target="_blank" rel="noreferrer">docs</a>');
    expect(html).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(html).toContain('<ol><li>first</li></ol>');
  });

  it('keeps inline HTML as HTML, out of the Markdown rules', () => {
    expect(markdownToHtml('**Notice**: <b>bold</b> and <span style="color: red">red</span>')).toBe(
      '<p><strong>Notice</strong>: <b>bold</b> and <span style="color: red">red</span></p>',
    );
    expect(markdownToHtml('<a href="https://x.test/a_b__c__d">*link*</a>')).toBe(
      '<p><a href="https://x.test/a_b__c__d"><em>link</em></a></p>',
    );
    expect(markdownToHtml('[x](javascript:alert(1))')).not.toContain('javascript:');
    expect(markdownToHtml('![a"b](https://x.test/i.png)')).toBe(
      '<p><img src="https://x.test/i.png" alt="a&quot;b"></p>',
    );
  });

  it('keeps code verbatim', () => {
    expect(markdownToHtml('```\n<b>*x*</b>\n```')).toBe('<pre><code>&lt;b&gt;*x*&lt;/b&gt;</code></pre>');
    expect(markdownToHtml('use `<br>` here')).toBe('<p>use <code>&lt;br&gt;</code> here</p>');
  });

  it('recognises a page address to embed', () => {
    expect(isEmbeddedUrl('https://example.com/about')).toBe(true);
    expect(isEmbeddedUrl('  http://example.com')).toBe(true);
    expect(isEmbeddedUrl('see https://example.com')).toBe(false);
  });
});
