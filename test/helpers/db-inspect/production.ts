// Production: the print files and jobs of an order.
import { sql } from './sql';

/** The print files production recorded for an order's lines, by line position. */
export async function productionFiles(
  orderId: string,
): Promise<{ position: number; printFileId: string; createdAt: Date; source: string; size: string }[]> {
  return sql()<{ position: number; printFileId: string; createdAt: Date; source: string; size: string }[]>`
    select f.position, f.print_file_id as "printFileId", f.created_at as "createdAt", p.source, p.size
    from production_files f join print_files p on p.id = f.print_file_id
    where f.order_id = ${orderId} order by f.position`;
}

/** The statuses of an order's production jobs. */
export async function productionJobStatuses(orderId: string): Promise<string[]> {
  const rows = await sql()<{ status: string }[]>`select status from production_jobs where order_id = ${orderId}`;
  return rows.map((r) => r.status);
}
