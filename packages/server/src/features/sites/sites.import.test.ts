import { describe, expect, it } from 'vitest';
import { validateSitesCsv } from './sites.import.ts';

const HEADER = 'domain,main_category,category,rank,name,description';

describe('validateSitesCsv', () => {
  it('accepts a good file in any column order and normalises domains', () => {
    const r = validateSitesCsv(
      `name,domain,main_category,category,rank,description\nExample,Example.COM,News,World,3,"A, site"\n`,
    );
    expect(r.errors).toEqual([]);
    expect(r.rows).toEqual([
      {
        domain: 'example.com',
        main_category: 'News',
        category: 'World',
        rank: 3,
        name: 'Example',
        description: 'A, site',
      },
    ]);
  });

  it('allows an empty rank', () => {
    expect(validateSitesCsv(`${HEADER}\na.org,Tech,,,A,`).rows[0].rank).toBeNull();
  });

  it('refuses a missing column, bad rows and duplicates with line numbers and returns no rows', () => {
    expect(validateSitesCsv('domain,name\na.org,A').errors[0]).toMatch(/lacks column/);
    const r = validateSitesCsv(
      `${HEADER}\na.org,Tech,x,1,A,\nnot a domain,Tech,x,1,B,\nb.org,,x,one,C,\na.org,Tech,x,2,D,\nc.org,Tech`,
    );
    expect(r.rows).toEqual([]);
    expect(r.errors).toEqual([
      expect.stringMatching(/^line 3: domain/),
      expect.stringMatching(/^line 4: main_category is required; rank "one"/),
      expect.stringMatching(/^line 5: domain a.org already appears on line 2/),
      expect.stringMatching(/^line 6: 2 fields/),
    ]);
  });

  it('refuses an empty file and a header-only file', () => {
    expect(validateSitesCsv('').errors).toEqual(['the file is empty']);
    expect(validateSitesCsv(HEADER).errors[0]).toMatch(/no rows/);
  });
});
