/**
 * macs's config, policy and preset schemas are written with zod/mini, whose
 * schemas cost a fraction of the classic API's to construct (every command
 * that reads the config builds them as it starts). Mini leaves zod's English
 * messages out; importing this module puts them in (the classic API does it
 * itself). Each schema module imports zod/mini itself, so that the build keeps
 * only the parts of zod it uses.
 */
import en from 'zod/v4/locales/en.js';
import { config } from 'zod/mini';

config(en());
