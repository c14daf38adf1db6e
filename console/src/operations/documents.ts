import { operation } from './operation';

export const ROW_FIELDS =
  'id title fileName fileExtension objectType size tags folders repos isPrivate createdBy createdAt updatedAt chunkCount';
export const SEARCH =
  operation(`query ConsoleDocumentSearch($query: String!, $mode: SearchMode, $filter: DocumentFilter, $pageNo: Int, $pageSize: Int,
  $minScore: Float, $sortBy: SortField, $order: SortOrder, $reRanked: Boolean, $exact: Boolean, $anywhere: Boolean, $highlight: Boolean) {
  search(query: $query, mode: $mode, filter: $filter, pageNo: $pageNo, pageSize: $pageSize, minScore: $minScore, sortBy: $sortBy,
    order: $order, reRanked: $reRanked, exact: $exact, anywhere: $anywhere, highlight: $highlight) {
    totalCount pageNo pageSize
    hits { score snippet highlights { field fragment } document { ${ROW_FIELDS} } }
    aggregations { objectType { key docCount } fileExtension { key docCount } tags { key docCount } repos { key docCount } folders { key docCount } }
  }
}`);
export const DOCUMENT = operation(`query ConsoleDocument($id: ID!) { document(id: $id) { ${ROW_FIELDS} kvp extUserIdRef } }`);
export const PASSAGES = operation(`query ConsoleDocumentPassages($id: ID!, $after: String) {
  document(id: $id) { id passages(first: 20, after: $after) { items { chunkId chunkIndex text } total nextCursor } }
}`);
export const DELETE = operation(`mutation ConsoleDeleteDocument($id: ID!) { deleteDocument(id: $id) }`);

export const TENANTS = operation(`query ConsoleTenantDocuments($after: String, $sort: String, $q: String) {
  adminDocuments(first: 25, after: $after, sort: $sort, q: $q) {
    items { tenantId documents privateDocuments deletedDocuments passages bytes repos folders lastUpdatedAt }
    nextCursor total
  }
}`);
export const REINDEX = operation(
  `mutation ConsoleReindex($tenant: ID!) { adminReindexTenant(tenant: $tenant) { tenantId passages embedder } }`,
);

export const UPLOAD = operation(`mutation ConsoleUpload($input: UploadDocumentInput!) {
  uploadDocument(input: $input) { id title fileName chunkCount }
}`);
