import { z } from 'zod';

/** spec: `Msg`, the health answer of the token and search services (`{"msg": "ok"}`). */
export const Msg = z.object({ msg: z.string() });
