// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { isEmbeddedUrl, renderMarkdown } from './markdown.js';

describe('renderMarkdown', () => {
  it('renders headings, emphasis, links, code and lists', () => {
    const html = renderMarkdown(
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

  it('escapes text in Markdown and passes HTML through', () => {
    expect(renderMarkdown('a < b & c')).toBe('<p>a &lt; b &amp; c</p>');
    expect(renderMarkdown('<p onclick="x">raw</p>')).toBe('<p onclick="x">raw</p>');
    expect(renderMarkdown('[x](javascript:alert(1))')).not.toContain('javascript:');
  });

  it('keeps code blocks verbatim', () => {
    expect(renderMarkdown('```\n<b>*x*</b>\n```')).toBe('<pre><code>&lt;b&gt;*x*&lt;/b&gt;</code></pre>');
  });

  it('recognises a page address to embed', () => {
    expect(isEmbeddedUrl('https://example.com/about')).toBe(true);
    expect(isEmbeddedUrl('  http://example.com')).toBe(true);
    expect(isEmbeddedUrl('see https://example.com')).toBe(false);
  });
});
