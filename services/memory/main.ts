import { runService } from '@dirigent/service-kit';
import { MemoryService } from './definition';

runService(MemoryService);
