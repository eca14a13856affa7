import { runService } from '@dirigent/service-kit';
import { TurnCoordinatorService } from './definition';

runService(TurnCoordinatorService);
