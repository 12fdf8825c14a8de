-- The request log records how a call came in: `api` (HTTP to /api/v1) or `mcp` (a tool call or resource read on
-- the MCP endpoint /mcp, docs/mcp.md). Existing rows were all API calls.
alter table api_request_log add column via text not null default 'api' check (via in ('api', 'mcp'));
