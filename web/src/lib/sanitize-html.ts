import DOMPurify from 'dompurify';

/**
 * Cleans HTML written by an administrator (footer, notice, home page, about) before the console
 * shows it: no scripts, event handlers, `javascript:` links, styles sheets, frames or forms (a
 * form could pose as the login). Formatting, links, images and inline styles stay. Administrators
 * (role 10) may change these texts, so the super administrator's console must not run them.
 * Links that open a new tab get `rel="noopener noreferrer"`.
 */
const FORBIDDEN_TAGS = [
  'style',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'iframe',
  'frame',
];

let hooked = false;
const purifier = () => {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A' && node.getAttribute('target') === '_blank')
        node.setAttribute('rel', 'noopener noreferrer');
    });
    hooked = true;
  }
  return DOMPurify;
};

export const sanitizeHtml = (html: string): string =>
  purifier().sanitize(html, { FORBID_TAGS: FORBIDDEN_TAGS, ADD_ATTR: ['target'] });
