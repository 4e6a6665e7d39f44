import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, readStorage, writeStorage, type Language } from '../lib/storage.js';
import { en } from './en.js';
import { zh } from './zh.js';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof en };
  }
}

/** The browser's first preference: Chinese for any zh-* language, English otherwise. */
export const browserLanguage = (
  languages: readonly string[] = globalThis.navigator?.languages ?? [],
): Language => (languages[0]?.toLowerCase().startsWith('zh') ? 'zh' : 'en');

/** The remembered choice, else the browser default. */
export const initialLanguage = (): Language => readStorage('language') ?? browserLanguage();

export const i18n = i18next.createInstance();
void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, zh: { translation: zh } },
  lng: initialLanguage(),
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
});

const htmlLang: Record<Language, string> = { en: 'en', zh: 'zh-CN' };

/** Switches and remembers the language. */
export const setLanguage = (language: Language): void => {
  writeStorage('language', language);
  void i18n.changeLanguage(language);
  document.documentElement.lang = htmlLang[language];
};

export const currentLanguage = (): Language => (i18n.language === 'zh' ? 'zh' : 'en');
