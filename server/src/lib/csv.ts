/** Text that a spreadsheet would run as a formula (CSV injection): =, +, -, @, and tab or CR before them. */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export type CsvValue = string | number | boolean;

/**
 * One RFC 4180 field. Text that begins like a formula gets a leading `'` so that spreadsheets show it
 * as text; numbers and booleans we produce ourselves are written as they are.
 */
export const csvField = (value: CsvValue): string => {
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** One record, CRLF-terminated as RFC 4180 asks. */
export const csvRecord = (values: readonly CsvValue[]): string => `${values.map(csvField).join(',')}\r\n`;

/** The byte-order mark that makes spreadsheets read the file as UTF-8. */
export const CSV_BOM = '\uFEFF';
