import { useEffect, useState } from 'react';
import { TabPanel, Tabs } from '../../ui/tabs';
import type { PageProps } from '../registry';
import { DocumentView } from './document';
import { DocumentList } from './list';
import { SearchPlayground } from './playground';
import { Tenants } from './tenants';
import { Upload } from './upload';

const TABS = [
  { id: 'list', title: 'Documents' },
  { id: 'upload', title: 'Upload' },
  { id: 'search', title: 'Search playground' },
] as const;
const ADMIN_TABS = [...TABS, { id: 'tenants', title: 'Tenants' }] as const;
type Tab = (typeof ADMIN_TABS)[number]['id'];

/**
 * The documents of the person's tenant (the graph's search acts on the caller's tenant): listed
 * and filtered, uploaded with progress, searched in every mode; one opened at `#/documents/<id>`
 * with its passages. Administrators also see every tenant they administer. What a person may do
 * is the graph's to say (search:read, search:write): its refusal is shown, not guessed here.
 * The tabs stay mounted while a document is open, so Back finds the list as it was.
 */
export function Documents({ person, admin, rest }: PageProps) {
  const [tab, setTab] = useState<Tab>('list');
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState('');
  const id = rest ? decodeURIComponent(rest) : '';
  const changed = () => setGeneration((g) => g + 1);
  // A notice (a deletion) stays on the list it returned to, not on the next document opened.
  useEffect(() => {
    if (id) setNotice('');
  }, [id]);
  return (
    <section aria-labelledby="documents-title">
      <h1 id="documents-title">Documents</h1>
      <p className="hint">
        Tenant <strong>{person.tenant}</strong>
      </p>
      <p role="status" className="state">
        {notice}
      </p>
      {id && (
        <DocumentView
          key={id}
          id={id}
          onDeleted={(title) => {
            setNotice(`Deleted “${title}”.`);
            changed();
            location.hash = '#/documents';
          }}
        />
      )}
      <div hidden={!!id}>
        <Tabs tabs={admin ? ADMIN_TABS : TABS} tab={tab} onTab={setTab} label="Parts of the documents page" prefix="documents" />
        <TabPanel prefix="documents" id="list" hidden={tab !== 'list'}>
          <h2 className="visually-hidden">Documents of the tenant</h2>
          <DocumentList generation={generation} />
        </TabPanel>
        <TabPanel prefix="documents" id="upload" hidden={tab !== 'upload'}>
          <h2 className="visually-hidden">Upload</h2>
          <Upload onUploaded={changed} />
        </TabPanel>
        <TabPanel prefix="documents" id="search" hidden={tab !== 'search'}>
          <h2 className="visually-hidden">Search playground</h2>
          <SearchPlayground />
        </TabPanel>
        {admin && (
          <TabPanel prefix="documents" id="tenants" hidden={tab !== 'tenants'}>
            <h2 className="visually-hidden">Tenants</h2>
            <Tenants generation={generation} />
          </TabPanel>
        )}
      </div>
    </section>
  );
}
