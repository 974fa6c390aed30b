// Where the gateway serves its OpenAPI document.
export const OPENAPI_PATH = '/v1/openapi.json';
