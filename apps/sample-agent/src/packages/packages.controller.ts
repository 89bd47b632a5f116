import { Controller, Get, Header, Inject, NotFoundException, Param, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_TARBALL, PACKAGES_ROUTE } from '../sample.packages';

/** Folder holding the tarballs the sample serves (SampleConfig.packagesDir). */
export const PACKAGES_DIR = Symbol('PACKAGES_DIR');

/** Only these files are ever served: no path from the URL reaches the file system. */
const SERVED = new Set([CLIENT_TARBALL]);

/**
 * GET /packages/<tarball>: the packages the catalog advertises, so its `install` line works
 * (`npm install <agent-url>/packages/restap-client-0.1.0.tgz`). Public, like the catalog; not a
 * capability, and left out of Swagger.
 */
@ApiExcludeController()
@Controller(PACKAGES_ROUTE)
export class PackagesController {
  constructor(@Inject(PACKAGES_DIR) private readonly dir: string | undefined) {}

  @Get(':file')
  @Header('Content-Type', 'application/gzip')
  @Header('Cache-Control', 'public, max-age=300')
  download(@Param('file') file: string): StreamableFile {
    const path = this.dir && SERVED.has(file) ? join(this.dir, file) : undefined;
    if (!path || !existsSync(path)) throw new NotFoundException(`No package ${file} here: the catalog's packages list what this agent serves.`);
    return new StreamableFile(createReadStream(path));
  }
}
