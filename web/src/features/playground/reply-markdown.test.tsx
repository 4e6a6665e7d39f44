// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Providers } from '../../app/providers.js';
import { createQueryClient } from '../../lib/query-client.js';
import { ReplyMarkdown } from './reply-markdown.js';

const renderReply = (text: string) =>
  render(
    <Providers queryClient={createQueryClient(() => undefined)}>
      <ReplyMarkdown text={text} />
    </Providers>,
  ).container;

describe('ReplyMarkdown', () => {
  afterEach(cleanup);

  it('renders Markdown: emphasis, inline code, a code block, a GFM table', () => {
    const view = renderReply(
      '**bold** and `x`\n\n```ts\nconst a = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n',
    );
    expect(view.querySelector('strong')?.textContent).toBe('bold');
    expect(view.querySelector('p code')?.textContent).toBe('x');
    expect(view.querySelector('pre code')?.textContent).toBe('const a = 1;');
    expect(view.querySelectorAll('table td')).toHaveLength(2);
  });

  it('shows raw HTML of a reply as text, never as elements', () => {
    const view = renderReply('<img src=x onerror="alert(1)"> <script>alert(2)</script>');
    expect(view.querySelector('img')).toBeNull();
    expect(view.querySelector('script')).toBeNull();
  });
});
