import type { Tenant } from './key-data';

/** The tenants a key may be given, as the options of a select or a datalist (the create form's and the filter's). */
export function TenantOptions({ tenants }: { tenants: Tenant[] }) {
  return (
    <>
      {tenants.map((t) => (
        <option key={t.id} value={t.id}>
          {t.label}
        </option>
      ))}
    </>
  );
}
