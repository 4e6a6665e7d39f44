/** The Baidu Wenxin Qianfan folder's public entry. */
export { baiduAdaptor } from './baidu-adaptor.js';
export { baiduTokenSource } from './baidu-token.js';
