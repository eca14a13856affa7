import { runService } from '@dirigent/service-kit';
import { RouterService } from './router.module';

runService(RouterService);
