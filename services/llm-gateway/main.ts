import { runService } from '@dirigent/service-kit';
import { LlmGatewayService } from './definition';

runService(LlmGatewayService);
