import { auditRowSchema, type AuditFilter } from '@sluice/contract/schemas/audit';
import { apiDownload, apiGetPage, type Query } from '../../lib/api-client.js';

/** The filters of the audit screen as GET /api/audit reads them (epoch seconds, 0 = not set; '' = any). */
export type AuditFilters = Readonly<AuditFilter>;

export const emptyAuditFilters = (): AuditFilters => ({
  username: '',
  object_type: '',
  action: '',
  start_timestamp: 0,
  end_timestamp: 0,
});

const auditQuery = (filters: AuditFilters): Query => ({
  username: filters.username.trim(),
  object_type: filters.object_type,
  action: filters.action,
  start_timestamp: filters.start_timestamp || '',
  end_timestamp: filters.end_timestamp || '',
});

/** GET /api/audit/: one page of the filtered rows, newest first, with the total. */
export const listAudit = (filters: AuditFilters, page: number, size: number) =>
  apiGetPage('/api/audit/', auditRowSchema, { ...auditQuery(filters), p: page, size });

/** GET /api/audit/export: the CSV of every row the filters match. */
export const exportAudit = (filters: AuditFilters) =>
  apiDownload('/api/audit/export', auditQuery(filters), 'audit.csv');
