import http from 'node:http';

/**
 * A small local shop on 127.0.0.1 for crawler tests: /products?page=N (PAGES pages of PER_PAGE products, "next"
 * link), /product/ID detail pages, /plain (one product list without pagination), robots.txt disallowing /private.
 */
export const PAGES = 3;
export const PER_PAGE = 4;
export const TOTAL = PAGES * PER_PAGE;

export interface ShopSite {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

const layout = (body: string) =>
  `<!doctype html><html><head><title>Shop</title><style>.x{}</style></head><body><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>${body}<footer><p>© Shop</p></footer></body></html>`;

function product(id: number) {
  return `<li class="product"><h2 class="title"><a href="/product/${id}">Product ${id}</a></h2><span class="price">$${id}.99</span><img src="/img/${id}.png"></li>`;
}

export async function startShopSite(): Promise<ShopSite> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    hits.push(u.pathname + u.search);
    const html = (s: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(layout(s));
    };
    if (u.pathname === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nDisallow: /private\n');
    }
    if (u.pathname === '/products') {
      const page = Number(u.searchParams.get('page') ?? 1);
      const items = Array.from({ length: PER_PAGE }, (_, i) => product((page - 1) * PER_PAGE + i + 1)).join('');
      const next = page < PAGES ? `<a class="next" href="/products?page=${page + 1}">Next</a>` : '';
      return html(
        `<main><h1>Products page ${page}</h1><ul id="list">${items}</ul><div class="pager">${next}</div></main>`,
      );
    }
    const m = /^\/product\/(\d+)$/.exec(u.pathname);
    if (m)
      return html(
        `<main><h1 class="name">Product ${m[1]}</h1><p class="desc">Description of product ${m[1]}</p><table><tr><th>SKU</th><td class="sku">SKU-${m[1]}</td></tr></table></main>`,
      );
    if (u.pathname === '/plain') {
      return html(
        `<div class="sidebar"><p>Filters</p></div><div class="content"><div class="grid">${Array.from({ length: 6 }, (_, i) => `<div class="card"><h3 class="name">Item ${i + 1}</h3><span class="cost">${10 + i} EUR</span><a class="more" href="/product/${i + 1}">more</a></div>`).join('')}</div></div>`,
      );
    }
    if (u.pathname.startsWith('/private')) return html('<ul><li class="secret">secret</li></ul>');
    res.writeHead(404);
    res.end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    hits,
    async close() {
      server.closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
