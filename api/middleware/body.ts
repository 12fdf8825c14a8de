import express from 'express';

/** JSON body parser for one route. Strict (objects and arrays only); malformed JSON becomes a 400 in the envelope. */
export const jsonBody = (limit = '100kb') => express.json({ limit, strict: true });
