import { runService } from '@dirigent/service-kit';
import { RouterService } from './definition';

runService(RouterService);
