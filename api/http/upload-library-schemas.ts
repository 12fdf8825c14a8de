// Schemas of the design library routes (issue 35, docs/uploads-and-analysis.md#the-design-library): the query of
// GET /uploads, the body of PATCH /uploads/{id}, and the library's upload resource and page.
import { z } from 'zod';
import { cursorParam, pageLimitParam, pagination } from '../pagination';
import { analysisResource, generationWarning, uploadResource } from './resources';
import { timestamp, uploadName } from './schemas';

export const uploadListQuery = z.strictObject({
  q: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .optional()
    .meta({ description: 'only uploads whose name contains this text (any case)' }),
  limit: pageLimitParam,
  cursor: cursorParam,
});

export const renameUploadBody = z.strictObject({ name: uploadName }).meta({ id: 'UploadRename' });

export const libraryUploadResource = uploadResource
  .extend({
    name: z
      .string()
      .meta({ description: "the file's name without its extension (multipart), or the JSON form's name" }),
    createdAt: timestamp,
    analysis: analysisResource.nullable().meta({
      description:
        'the latest printability analysis of this upload (POST /analyze on its url, or made after the upload); null until one exists',
    }),
    analyzedAt: timestamp.nullable(),
  })
  .meta({ id: 'LibraryUpload' });

export const uploadPage = z.object({ uploads: z.array(libraryUploadResource), pagination }).meta({ id: 'UploadPage' });

export const contrastQuery = z.strictObject({
  garmentId: z.string({ message: 'is required: the garment whose colours to check' }).min(1).max(100),
});

export const contrastResource = z
  .object({
    uploadId: z.string(),
    garmentId: z.string(),
    analysed: z.boolean().meta({ description: 'false when the design could not be analysed: no warning can be given' }),
    colors: z.array(
      z.object({
        name: z.string(),
        hex: z.string(),
        available: z.boolean(),
        dark: z.boolean().meta({ description: 'CIELAB L* under 50: a bulk render uses the darkDesignUrl on it' }),
        warning: generationWarning
          .nullable()
          .meta({ description: 'the low_contrast warning a generation on this colour would carry, or null' }),
      }),
    ),
  })
  .meta({ id: 'DesignContrast' });
