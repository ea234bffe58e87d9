import { Int, MAX_PAGE_NUM } from './bounds.ts';
import { Type } from '@sinclair/typebox';

/**
 * The `page_num` / `page_size` pair of every list call (spec §7), as TypeBox fields to spread into a query schema.
 * Each list keeps its own largest page (the all-spiders call needs 99999999, a delivery log far less).
 */
export function pageFields(maxPageSize: number) {
  return {
    page_num: Type.Optional(Int(1, MAX_PAGE_NUM)),
    page_size: Type.Optional(Int(1, maxPageSize)),
  };
}
