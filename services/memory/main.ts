import { runService } from '@dirigent/service-kit';
import { MemoryService } from './memory.module';

runService(MemoryService);
