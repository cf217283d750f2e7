import { z } from "zod";
import type { Request, Response, NextFunction } from "express";

export const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 25;

export const listQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  sort: z.enum(["createdAt", "name", "price"]).default("createdAt"),
});

export interface Product {
  id: string;
  name: string;
  priceCents: number;
  createdAt: Date;
  archived: boolean;
}

export class HttpError extends Error {
  constructor(public readonly status: number, message: string) {
    super(message);
  }
}

export function paginate<T>(items: T[], page: number, pageSize: number): T[] {
  const start = (page - 1) * pageSize;
  return items.slice(start, start + pageSize);
}

export async function listProducts(req: Request, res: Response, next: NextFunction) {
  try {
    const query = listQuery.parse(req.query);
    const products = await req.app.locals.store.products({ archived: false });
    const sorted = [...products].sort((a: Product, b: Product) =>
      query.sort === "price" ? a.priceCents - b.priceCents : String(a[query.sort]).localeCompare(String(b[query.sort])),
    );
    res.json({
      items: paginate(sorted, query.page, query.pageSize),
      total: sorted.length,
    });
  } catch (err) {
    next(err);
  }
}

export function errorHandler(err: unknown, _req: Request, res: Response, _next: NextFunction) {
  if (err instanceof HttpError) {
    res.status(err.status).json({ error: err.message });
    return;
  }
  console.error("unhandled error", err);
  res.status(500).json({ error: "internal error" });
}
